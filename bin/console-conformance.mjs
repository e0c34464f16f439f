#!/usr/bin/env node
// The package's command. The suite is TypeScript run as it is written: tsx (a dependency) compiles
// each file as it is imported, with the package's own tsconfig, not that of the folder it is run from.
import { register } from 'tsx/esm/api';

register({ tsconfig: new URL('../tsconfig.json', import.meta.url).pathname });
const { dispatch } = await import('../scripts/cli.ts');
await dispatch(process.argv.slice(2));
