import { describe, expect, test } from "bun:test";
import { commandOf, tokenizeArgs } from "../../../src/config/args";
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

  test("the command is the first positional, serve when there is none, also after flags with values", () => {
    expect(commandOf([])).toBe("serve");
    expect(commandOf(["--port", "9000"])).toBe("serve");
    expect(commandOf(["--port", "9000", "migrate"])).toBe("migrate");
    expect(commandOf(["version", "--json"])).toBe("version");
    expect(commandOf(["serve", "--no-migrate"])).toBe("serve");
  });

  test("parseArgs gives configuration flags to the environment and keeps the rest as options, on the same tokens", () => {
    const argv = ["serve", "--port", "9000", "--admin-key=ak_x", "--no-migrate", "--json"];
    const parsed = parseArgs(argv);
    expect(parsed.positionals).toEqual(tokenizeArgs(argv).positionals);
    expect(parsed.envFlags).toEqual({ PORT: "9000", SWITCHYARD_ADMIN_KEY: "ak_x" });
    expect(parsed.options).toEqual({ "no-migrate": true, json: true });
  });
});
