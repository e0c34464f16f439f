// The clause catalogue (contracts/clauses.yaml), for tests that check a whole family of clauses at
// once: e.g. a response schema check covers every field-type clause of the resource it returns.
import { readYaml } from '../../core/yaml.ts';

export interface Clause {
  id: string;
  section: string;
  level: 'stated' | 'inferred' | 'open';
  text: string;
  checkedBy: string[];
}

export const CLAUSES: Clause[] = (readYaml(new URL('../clauses.yaml', import.meta.url)) as { clauses: Clause[] }).clauses;

/** Ids of the clauses whose id starts with `prefix` (e.g. `gate.field.`). */
export function clausesUnder(prefix: string): string[] {
  const ids = CLAUSES.filter((c) => c.id.startsWith(prefix)).map((c) => c.id);
  if (ids.length === 0) throw new Error(`no clause under ${prefix} in contracts/clauses.yaml`);
  return ids;
}
