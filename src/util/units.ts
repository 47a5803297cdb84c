/**
 * Bytes in a megabyte. txbench's MB are SI megabytes (10^6 bytes) everywhere it reports data
 * volumes: device MB/s, host memory, load sizes (run.json and the Prometheus help say so).
 */
export const BYTES_PER_MB = 1_000_000;

/**
 * Bytes in a mebibyte (2^20): the unit of dd's `bs=1M`, and of the process-memory figures the
 * scheduler and soak benches print (labelled MB there, kept as they were measured).
 */
export const BYTES_PER_MIB = 1024 * 1024;

/** `bytes` in MB (10^6 bytes). */
export function bytesToMB(bytes: number): number {
  return bytes / BYTES_PER_MB;
}
