/**
 * Counts the ends of a MySQL/MariaDB server's answers to COM_QUERY (text protocol), in a byte
 * stream cut anywhere, without decoding rows: an answer is one result after another (an OK, or a
 * result set: column count, column definitions, EOF, rows, EOF), and it ends at the OK or final EOF
 * whose status lacks SERVER_MORE_RESULTS_EXISTS, or at an error packet (counted). A multi-statement
 * batch and a CALL answer so. Needs a connection without CLIENT_DEPRECATE_EOF (mysql2's).
 * The TPC-C half of the bench's MariaDB floor (tpcc-floor-child.ts).
 */
const OK = 0x00;
const EOF = 0xfe;
const ERROR = 0xff;
const MORE_RESULTS = 0x0008;
/** An OK's head: 0x00, two length-encoded ints of up to 9 bytes, the status. */
const HEAD = 21;

type State = 'first' | 'columns' | 'rows';

export class MysqlBatchEnds {
  private readonly header = Buffer.alloc(4);
  private haveHeader = 0;
  private readonly head = Buffer.alloc(HEAD);
  private haveHead = 0;
  private length = 0;
  private left = 0;
  private state: State = 'first';
  private columnsLeft = 0;
  /** Error packets read so far. */
  errors = 0;

  /** Reads the first `n` bytes of `bytes`; returns how many answers ended in them. */
  feed(bytes: Uint8Array, n: number): number {
    let ended = 0;
    let i = 0;
    while (i < n) {
      if (this.haveHeader < 4) {
        this.header[this.haveHeader++] = bytes[i++]!;
        if (this.haveHeader === 4) {
          this.length = this.header.readUIntLE(0, 3);
          this.left = this.length;
          this.haveHead = 0;
          if (this.left === 0) ended += this.packet();
        }
        continue;
      }
      const k = Math.min(this.left, n - i);
      for (let j = 0; j < k && this.haveHead < HEAD; j++) this.head[this.haveHead++] = bytes[i + j]!;
      i += k;
      this.left -= k;
      if (this.left === 0) ended += this.packet();
    }
    return ended;
  }

  /** One whole packet read (its head kept): 1 if it ended an answer. */
  private packet(): number {
    this.haveHeader = 0;
    const first = this.haveHead > 0 ? this.head[0]! : -1;
    if (first === ERROR) {
      this.errors++;
      this.state = 'first';
      return 1;
    }
    switch (this.state) {
      case 'first':
        if (first === OK) return this.more(okStatus(this.head)) ? 0 : 1;
        this.columnsLeft = lengthEncoded(this.head, 0).value;
        this.state = 'columns';
        return 0;
      case 'columns':
        // The column definitions, then the EOF that ends them.
        if (this.columnsLeft-- === 0) this.state = 'rows';
        return 0;
      case 'rows':
        if (first !== EOF || this.length >= 9) return 0;
        this.state = 'first';
        return this.more(this.head.readUInt16LE(3)) ? 0 : 1;
    }
  }

  private more(status: number): boolean {
    return (status & MORE_RESULTS) !== 0;
  }
}

function lengthEncoded(b: Buffer, at: number): { value: number; size: number } {
  const first = b[at]!;
  if (first < 0xfb) return { value: first, size: 1 };
  if (first === 0xfc) return { value: b.readUInt16LE(at + 1), size: 3 };
  if (first === 0xfd) return { value: b.readUIntLE(at + 1, 3), size: 4 };
  return { value: Number(b.readBigUInt64LE(at + 1)), size: 9 };
}

/** An OK packet's status flags: after 0x00, the affected rows and the last insert id. */
function okStatus(b: Buffer): number {
  const rows = lengthEncoded(b, 1);
  const id = lengthEncoded(b, 1 + rows.size);
  return b.readUInt16LE(1 + rows.size + id.size);
}
