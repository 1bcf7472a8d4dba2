const what = process.argv[2];
const t = performance.now();
await import(what);
process.stdout.write(`${(performance.now() - t).toFixed(0)}\n`);
