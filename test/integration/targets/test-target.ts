/** A database the dialect suite can use, and how to stop it. */
export interface TestTarget {
  url: string;
  stop(): Promise<void>;
}
