// Playground: a chat with a model from /v1/models and the request's routing options, streamed with the
// page's own playground key (never the signed-in key), each answer followed by the route that served it,
// its cost, its time to first token and a link to its request record.
import "./playground.css";
import { h } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiFailure, type Row } from "../lib/api";
import { formError, owns } from "../lib/form";
import { useApi } from "../lib/hooks";
import type { PageProps } from "../lib/types";
import { empty, page, status } from "../lib/ui";
import { answerDetails } from "./playground-answer";
import { withPlaygroundKey } from "./playground-key";
import { focusControl, initialOpts, optionsForm, ownParam, requestBody, type Opts } from "./playground-options";
import { streamChat, type Answer } from "./playground-stream";

interface Turn {
  role: "user" | "assistant";
  content: string;
  streaming?: boolean;
  answer?: Answer;
  failure?: ApiFailure;
}

const asFailure = (e: unknown, o: Opts): ApiFailure =>
  e instanceof ApiFailure
    ? new ApiFailure(e.message, e.status, ownParam(e.param, o), e.code)
    : new ApiFailure(String((e as Error)?.message ?? e), 0, null, null);

/** The conversation as the API takes it: answered turns, without empty (stopped at once) answers. */
const history = (turns: Turn[]): Row[] => turns.filter((t) => t.content !== "").map((t) => ({ role: t.role, content: t.content }));

function turnView(t: Turn, answerNo: number) {
  return h("li", { class: `pg-turn pg-${t.role}`, "data-role": t.role }, [
    h("h3", { class: "pg-who" }, t.role === "user" ? "You" : "Model"),
    h("div", { class: "pg-text", "aria-busy": t.streaming ? "true" : undefined }, t.content),
    t.failure ? h("p", { role: "alert", class: "error" }, t.failure.message) : null,
    t.answer?.stopped ? h("p", { class: "hint" }, "Stopped.") : null,
    t.answer ? answerDetails(t.answer, answerNo) : null,
  ]);
}

/** A refusal shown beside a control: said here too, where the message was sent, with a way to that control. */
function refusedAt(failure: ApiFailure | null, o: Opts) {
  const name = failure ? Object.keys(o).find((n) => owns(failure.param, n)) : undefined;
  if (!name) return null;
  return h("p", { class: "error" }, [
    "The gateway refused this request. ",
    h("button", { type: "button", class: "link", onClick: () => focusControl(name) }, "Go to the option it names"),
  ]);
}

export function Playground({ me }: PageProps) {
  const models = useApi("/v1/models");
  const [opts, setOpts] = useState<Opts | null>(null);
  const [turns, setTurns] = useState<Turn[]>([]);
  const [draft, setDraft] = useState("");
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  // Leaving the page ends a stream still running.
  useEffect(() => () => abort.current?.abort(), []);

  if (!models.data) return page("Playground", status(models));
  const ids = ((models.data.data as Row[]) ?? []).map((m) => String(m.id));
  if (ids.length === 0) return page("Playground", empty("No model can be routed: configure a provider first."));
  const o = opts ?? initialOpts(ids[0]!);

  const updateLast = (patch: Partial<Turn>) => setTurns((ts) => [...ts.slice(0, -1), { ...ts[ts.length - 1]!, ...patch }]);

  const send = async () => {
    const content = draft.trim();
    if (!content || busy) return;
    const body = requestBody(o, [...history(turns), { role: "user", content }]);
    setTurns((ts) => [...ts, { role: "user", content }, { role: "assistant", content: "", streaming: true }]);
    setDraft("");
    setFailure(null);
    setBusy(true);
    const ctl = new AbortController();
    abort.current = ctl;
    try {
      const a = await withPlaygroundKey(me, (key) => streamChat(key, body, ctl.signal, (text) => updateLast({ content: text })));
      updateLast({ content: a.text, streaming: false, answer: a, failure: a.error ?? undefined });
    } catch (e) {
      // Refused before any answer: the message goes back to the box, the error beside the control it names.
      setTurns((ts) => ts.slice(0, -2));
      setDraft(content);
      setFailure(asFailure(e, o));
    } finally {
      abort.current = null;
      setBusy(false);
    }
  };

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      void send();
    }
  };
  let answers = 0;
  const composer = h(
    "form",
    {
      class: "pg-composer",
      "aria-label": "Compose a message",
      onSubmit: (e: Event) => {
        e.preventDefault();
        void send();
      },
    },
    [
      h("label", { for: "pg-message" }, "Message"),
      h("textarea", {
        id: "pg-message",
        rows: 3,
        value: draft,
        onInput: (e: Event) => setDraft((e.currentTarget as HTMLTextAreaElement).value),
        onKeyDown,
        "aria-describedby": "pg-message-hint",
      }),
      h("small", { id: "pg-message-hint", class: "hint" }, "Enter sends, Shift+Enter starts a new line."),
      h("div", { class: "pg-buttons" }, [
        h("button", { type: "submit", disabled: busy }, "Send"),
        h("button", { type: "button", disabled: !busy, onClick: () => abort.current?.abort() }, "Stop"),
      ]),
    ],
  );
  const newConversation = h(
    "button",
    { type: "button", disabled: busy || turns.length === 0, onClick: () => (setTurns([]), setFailure(null)) },
    "New conversation",
  );
  return page(
    "Playground",
    h("div", { class: "pg" }, [
      optionsForm(o, ids, failure, (next) => (setOpts(next), setFailure(null))),
      h("div", { class: "pg-chat" }, [
        turns.length === 0
          ? empty("Send a message to start a conversation.")
          : h(
              "ol",
              { class: "pg-turns", "aria-label": "Conversation" },
              turns.map((t) => turnView(t, t.role === "assistant" ? ++answers : answers)),
            ),
        h("p", { role: "status", class: "hint pg-status" }, busy ? "Answering…" : ""),
        formError(failure, Object.keys(o)) ?? refusedAt(failure, o),
        composer,
      ]),
    ]),
    newConversation,
  );
}
