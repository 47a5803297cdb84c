/** `txbench plan`'s flags, apart from the command so that the command table (commands.ts) can list them. */
export const PLAN_FLAGS = {
  out: { type: 'string', short: 'o' },
  resume: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
} as const;
