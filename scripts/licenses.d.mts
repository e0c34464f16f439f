// Types of scripts/licenses.mjs (plain JavaScript, so that npm run check runs it before anything is compiled).
export const PERMISSIVE: Set<string>;
export function allowed(expression: string | undefined): boolean;
export function licenseOf(pkg: Record<string, unknown>): string | undefined;
export function pythonLicense(metadata: string): string | undefined;
