/**
 * Counts a PostgreSQL backend's ReadyForQuery messages in its byte stream, cut anywhere, without
 * decoding anything else: the least a client must read to know a statement is done (the floor of
 * section 10). ErrorResponses are counted: the ReadyForQuery after one still ends its statement.
 */
const READY_FOR_QUERY = 0x5a; // 'Z'
const ERROR_RESPONSE = 0x45; // 'E'

export class BackendFrames {
  private readonly header = Buffer.alloc(5);
  private have = 0;
  private skip = 0;
  private type = 0;
  /** ErrorResponses read so far. */
  errors = 0;

  /** Reads the first `n` bytes of `bytes`; returns how many ReadyForQuery messages ended in them. */
  feed(bytes: Uint8Array, n: number): number {
    let ready = 0;
    let i = 0;
    while (i < n) {
      if (this.skip > 0) {
        const k = Math.min(this.skip, n - i);
        i += k;
        this.skip -= k;
        if (this.skip === 0) ready += this.ended();
        continue;
      }
      this.header[this.have++] = bytes[i++]!;
      if (this.have === 5) {
        this.have = 0;
        this.type = this.header[0]!;
        this.skip = this.header.readInt32BE(1) - 4;
        if (this.skip === 0) ready += this.ended();
      }
    }
    return ready;
  }

  private ended(): number {
    if (this.type === ERROR_RESPONSE) this.errors++;
    return this.type === READY_FOR_QUERY ? 1 : 0;
  }
}
