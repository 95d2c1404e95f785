// A callgrind output file (valgrind --tool=callgrind) read back as cost per function: its own cost
// ("self") and the inclusive cost of every call it makes, by caller and callee, for one event (Ir, or a
// cache simulation's misses). Enough of the format for that and for the name compression callgrind
// writes ("fn=(12) name", then "(12)").

export interface CallgrindFn {
  /** The object (executable, library; "???" for JIT'd code) and the function (a name or "0x…"). */
  object: string;
  fn: string;
}

export interface CallgrindProfile {
  total: number;
  /** Own instructions by function key ("object\tfn"). */
  self: Map<string, number>;
  /** Inclusive instructions of calls, by caller key then callee key. */
  calls: Map<string, Map<string, number>>;
}

export const fnKey = (f: CallgrindFn): string => `${f.object}\t${f.fn}`;

/** `event`: which of the file's events to read (Ir unless told; e.g. DLmr with --cache-sim=yes). */
export function parseCallgrind(text: string, event = "Ir"): CallgrindProfile {
  // A cost line holds the events in the order of the "events:" line; trailing zeros may be left out.
  const column = 1 + (/^events: (.+)$/m.exec(text)?.[1]?.split(" ").indexOf(event) ?? 0);
  if (column === 0) throw new Error(`no event ${event} in this callgrind file`);
  const objects = new Map<string, string>();
  const fns = new Map<string, string>();
  // "(id) name" defines id; "(id)" refers to it.
  const named = (table: Map<string, string>, spec: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
    if (!m) return spec;
    if (m[2] !== undefined) table.set(m[1]!, m[2]);
    return table.get(m[1]!) ?? spec;
  };
  const self = new Map<string, number>();
  const calls = new Map<string, Map<string, number>>();
  let object = "";
  let fn = "";
  let calleeObject = "";
  let callee = "";
  let inCall = false;
  let total = 0;
  for (const line of text.split("\n")) {
    const c = line.charCodeAt(0);
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42) {
      // A cost line: "<position> <Ir>"; after "calls=" it is the call's inclusive cost.
      const cost = Number(line.split(" ")[column] ?? 0);
      const me = `${object}\t${fn}`;
      if (inCall) {
        let out = calls.get(me);
        if (!out) calls.set(me, (out = new Map()));
        const to = `${calleeObject || object}\t${callee}`;
        out.set(to, (out.get(to) ?? 0) + cost);
        inCall = false;
        calleeObject = ""; // "cob=" names one call's callee object; without it, the caller's
      } else {
        self.set(me, (self.get(me) ?? 0) + cost);
        total += cost;
      }
    } else if (line.startsWith("ob=")) {
      object = named(objects, line.slice(3));
    } else if (line.startsWith("fn=")) {
      fn = named(fns, line.slice(3));
    } else if (line.startsWith("cob=")) {
      calleeObject = named(objects, line.slice(4));
    } else if (line.startsWith("cfn=")) {
      callee = named(fns, line.slice(4));
    } else if (line.startsWith("calls=")) {
      inCall = true;
    }
  }
  return { total, self, calls };
}
