// The pieces every management response schema shares: timestamps, the propagation flag of writes, the
// list and page wrappers, the delete acknowledgement and the error envelope, so the OpenAPI document
// describes each body the way the handlers build it.
import { Type, type TArray, type TInteger, type TSchema } from "@sinclair/typebox";
import { ERROR_TABLE, type ErrorCode } from "../http/errors";

export const Iso = Type.String({ format: "date-time", description: "ISO 8601, UTC" });
export const IsoOrNull = Type.Union([Iso, Type.Null()]);
export const Propagation = Type.Union([Type.Literal("pending"), Type.Null()], {
  description: '"pending" on a 202 (shared mode: other instances apply the write within 5 s), else null',
});
export const StringOrNull = Type.Union([Type.String(), Type.Null()]);
export const IntOrNull = Type.Union([Type.Integer(), Type.Null()]);

type ListProps<K extends string, T extends TSchema> = { [P in K]: TArray<T> } & { count: TInteger };
type PageProps<K extends string, T extends TSchema> = ListProps<K, T> & { total: TInteger; limit: TInteger; offset: TInteger };

/** `{<plural>: [...], count}`, the shape of every list. */
export const listOf = <K extends string, T extends TSchema>(plural: K, item: T) =>
  Type.Object({ [plural]: Type.Array(item), count: Type.Integer() } as ListProps<K, T>);

/** A list with paging: `total` counts every match, `limit` and `offset` echo the page asked for. */
export const pageOf = <K extends string, T extends TSchema>(plural: K, item: T) =>
  Type.Object({
    [plural]: Type.Array(item),
    count: Type.Integer(),
    total: Type.Integer(),
    limit: Type.Integer(),
    offset: Type.Integer(),
  } as PageProps<K, T>);

export const ErrorEnvelope = Type.Object(
  {
    error: Type.Object({
      message: Type.String(),
      type: Type.String(),
      param: Type.Union([Type.String(), Type.Null()], { description: "the field's path, e.g. scopes[0]" }),
      code: Type.Union(
        (Object.keys(ERROR_TABLE) as ErrorCode[]).map((c) => Type.Literal(c)),
        { description: "see /docs/errors" },
      ),
      doc_url: Type.String(),
      retryable: Type.Boolean(),
      provider: Type.Optional(Type.String()),
    }),
  },
  { description: "The error envelope (/docs/errors)" },
);
