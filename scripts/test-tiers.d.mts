// Types of scripts/test-tiers.mjs (plain JavaScript, so that it runs without tsx).
export function testFiles(root?: string): string[];
export function importsOf(source: string): string[];
export function startsProcesses(file: string): boolean;
export function tiers(root?: string): { inProcess: string[]; process: string[] };
export const IN_PROCESS_RUNNER: string;
export function unitRun(root?: string): string[];
