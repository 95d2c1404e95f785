import { defineConfig } from "drizzle-kit";
export default defineConfig({ dialect: "postgresql", schema: "./src/platform/db/schema-pg.ts", out: "./migrations/postgres" });
