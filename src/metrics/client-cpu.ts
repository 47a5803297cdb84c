/** CPU txbench's own process used over a measured window, and what it comes to per transaction. */
export interface ClientCpu {
  userS: number;
  systemS: number;
  coresUsed: number;
  usPerTransaction: number;
}

/** Process CPU (from `process.cpuUsage()` deltas) over a span of wall time. */
export interface ProcessCpu {
  userUs: number;
  systemUs: number;
}

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

export function clientCpuFigures(cpu: ProcessCpu, seconds: number, transactions: number): ClientCpu {
  const us = cpu.userUs + cpu.systemUs;
  return {
    userS: round(cpu.userUs / 1e6, 3),
    systemS: round(cpu.systemUs / 1e6, 3),
    coresUsed: seconds > 0 ? round(us / 1e6 / seconds, 3) : 0,
    usPerTransaction: transactions > 0 ? round(us / transactions, 1) : 0,
  };
}
