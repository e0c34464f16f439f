// JSON as parsed (a response body, the contract, a manifest, a report), read field by field: its shape
// is held by a schema or a check at run time, not by tsc. The one `any` of the source, named for what
// it is; everything else is typed, or `unknown` until checked.
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON whose shape a schema or a check holds at run time
export type Json = any;
export type JsonObject = Record<string, Json>;
