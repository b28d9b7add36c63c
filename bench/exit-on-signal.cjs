// @ts-check
// Preloaded into the portal when BENCH_CPU_PROF is set: SIGUSR2 exits cleanly so --cpu-prof writes its profile.
process.on('SIGUSR2', () => process.exit(0));
