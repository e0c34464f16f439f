// Types of validators.js, which load/lib/build-validators.ts generates at the start of every load run
// (Ajv standalone code). The module also exports one Validator per operationId (e.g. listExperiments);
// their names come from contracts/schemas/index.json, so load/lib/checks.ts looks them up by name.
export interface ValidationError { instancePath: string; message?: string }
export type Validator = ((data: unknown) => boolean) & { errors?: ValidationError[] | null };
export interface CheckedOperation { successStatus: string; method: string; path: string; clauses: { status: string; schema: string } }
/** Each operation's success status, route and the clauses its success answer proves. */
export const CHECKED_OPERATIONS: Record<string, CheckedOperation>;
/** Each clause id of contracts/clauses.yaml with its level (load/lib/clause-levels.ts). */
export const CLAUSE_LEVELS: Record<string, 'stated' | 'inferred' | 'open'>;
