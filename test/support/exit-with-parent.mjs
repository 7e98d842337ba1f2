// Preloaded (node --import) into the servers the tests start. Their stdin is a pipe from the test
// process: when that process dies without stopping them (a timeout, a killed run), the pipe ends
// and the server goes with it, instead of living on with its database connections and projectors.
process.stdin.on('end', () => process.exit(1));
process.stdin.on('error', () => process.exit(1));
process.stdin.resume();
// Never the reason the process stays up: a server stopped by SIGTERM still ends by itself.
process.stdin.unref();
