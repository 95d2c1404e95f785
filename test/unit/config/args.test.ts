import { describe, expect, test } from "bun:test";
import { startsServer, tokenizeArgs } from "../../../src/config/args";
import { parseArgs } from "../../../src/config/load";

describe("command line (config/args.ts)", () => {
  test("a flag takes the next argument as its value unless that is a flag; --name=value and a bare --name too", () => {
    expect(tokenizeArgs(["key", "create", "--workspace", "ws_1", "--json", "--scopes=all", "--no-migrate"])).toEqual({
      positionals: ["key", "create"],
      flags: [
        ["workspace", "ws_1"],
        ["json", true],
        ["scopes", "all"],
        ["no-migrate", true],
      ],
    });
  });

  test("the command is the first positional, also after flags with values", () => {
    expect(tokenizeArgs(["--port", "9000", "migrate"]).positionals).toEqual(["migrate"]);
    expect(tokenizeArgs(["version", "--json"]).positionals).toEqual(["version"]);
    expect(tokenizeArgs(["--port", "9000"]).positionals).toEqual([]);
  });

  test("only serve starts the server (and re-executes for its runtime settings); --help prints the usage instead", () => {
    expect(startsServer([])).toBe(true);
    expect(startsServer(["serve", "--port", "9000"])).toBe(true);
    expect(startsServer(["--help"])).toBe(false);
    expect(startsServer(["serve", "--help"])).toBe(false);
    expect(startsServer(["migrate"])).toBe(false);
    expect(startsServer(["key", "create", "--name", "serve"])).toBe(false);
  });

  test("parseArgs gives configuration flags to the environment and keeps the rest as options, on the same tokens", () => {
    const argv = ["serve", "--port", "9000", "--admin-key=ak_x", "--no-migrate", "--json"];
    const parsed = parseArgs(argv);
    expect(parsed.positionals).toEqual(tokenizeArgs(argv).positionals);
    expect(parsed.envFlags).toEqual({ PORT: "9000", SWITCHYARD_ADMIN_KEY: "ak_x" });
    expect(parsed.options).toEqual({ "no-migrate": true, json: true });
  });
});
