#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Everything is written by now. A driver may still hold sockets it opened on its own after its
// pool was ended (seen with postgres.js after a network fault); they must not keep a finished
// run alive. The timer is unref'd: a process with nothing left open exits at once, as before.
setTimeout(() => process.exit(code), 2000).unref();
