/**
 * Counts the ends of a MySQL/MariaDB server's answers to COM_STMT_EXECUTE of a one-row select, in a
 * byte stream cut anywhere, without decoding them: an answer ends with the EOF/OK packet (0xfe,
 * under 9 bytes) that follows its row (a binary row starts 0x00; the column count and column
 * definitions before it never do, and the EOF between them comes before any row). An error
 * packet (0xff) ends the count with an error. The MariaDB half of section 10's floor.
 */
const ROW = 0x00;
const EOF = 0xfe;
const ERROR = 0xff;

export class MysqlFrames {
  private readonly header = Buffer.alloc(4);
  private have = 0;
  private skip = 0;
  private length = 0;
  private first = -1;
  private sawRow = false;

  /** Reads the first `n` bytes of `bytes`; returns how many answers ended in them. */
  feed(bytes: Uint8Array, n: number): number {
    let done = 0;
    let i = 0;
    while (i < n) {
      if (this.skip > 0) {
        if (this.first < 0) this.first = bytes[i]!;
        const k = Math.min(this.skip, n - i);
        i += k;
        this.skip -= k;
        if (this.skip === 0) done += this.ended();
        continue;
      }
      this.header[this.have++] = bytes[i++]!;
      if (this.have === 4) {
        this.have = 0;
        this.length = this.header.readUIntLE(0, 3);
        this.skip = this.length;
        this.first = -1;
        if (this.skip === 0) done += this.ended();
      }
    }
    return done;
  }

  private ended(): number {
    if (this.first === ERROR) throw new Error('the server answered with an error packet');
    if (this.first === ROW) this.sawRow = true;
    else if (this.first === EOF && this.length < 9 && this.sawRow) {
      this.sawRow = false;
      return 1;
    }
    return 0;
  }
}
