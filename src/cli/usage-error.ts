/** Thrown for wrong command-line usage; exits 2. */
export class UsageError extends Error {}
