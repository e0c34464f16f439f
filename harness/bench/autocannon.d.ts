// What harness/bench/generator.ts uses of autocannon (MIT), which ships no types.
declare module 'autocannon' {
  interface Options {
    url: string;
    headers?: Record<string, string>;
    connections?: number;
    overallRate?: number;
    duration?: number;
  }
  interface Result {
    requests: { total: number };
  }
  export default function autocannon(options: Options): Promise<Result>;
}
