/**
 * Counts the ends of a MySQL/MariaDB server's answers, in a byte stream cut anywhere, without
 * decoding them. A SELECT's answer (COM_STMT_EXECUTE, binary rows) ends with the EOF/OK packet
 * (0xfe, under 9 bytes) that follows its rows (a binary row starts 0x00; the column count and
 * column definitions before it never do, and the EOF between them comes before any row): every
 * SELECT the floor sends has a row. Any other statement's answer is one packet (`okAnswer`, set
 * before it is sent). An error packet (0xff) ends an answer and is counted. The MariaDB half of
 * section 10's floor.
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
  /** The answer being read is a single OK (not a result set). */
  okAnswer = false;
  /** Error packets read so far. */
  errors = 0;

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
    if (this.first === ERROR) {
      this.errors++;
      this.sawRow = false;
      return 1;
    }
    if (this.okAnswer) return 1;
    if (this.first === ROW) this.sawRow = true;
    else if (this.first === EOF && this.length < 9 && this.sawRow) {
      this.sawRow = false;
      return 1;
    }
    return 0;
  }
}
