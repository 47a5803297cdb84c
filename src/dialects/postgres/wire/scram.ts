/**
 * The client side of SCRAM-SHA-256 (RFC 5802, RFC 7677), as PostgreSQL uses it without channel
 * binding: the first message, the final message with the proof, and the check of the server's
 * signature (a server that cannot prove it knows the password is not trusted); and the older MD5
 * password answer.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/** The answer to PostgreSQL's MD5 password request: "md5" + md5(md5(password + user) + salt), in hex. */
export function md5PasswordResponse(password: string, user: string, salt: Buffer): string {
  const md5 = (data: string | Buffer): string => createHash('md5').update(data).digest('hex');
  return 'md5' + md5(Buffer.concat([Buffer.from(md5(password + user)), salt]));
}

export const SCRAM_MECHANISM = 'SCRAM-SHA-256';

export interface ScramClient {
  /** The client-first-message ("n,,n=,r=NONCE"). */
  readonly first: string;
  /** The client-final-message for the server-first-message; throws on a malformed or foreign one. */
  final(serverFirst: string): string;
  /** Throws unless the server-final-message carries the signature this password gives. */
  verify(serverFinal: string): void;
}

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

function attributes(message: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const part of message.split(',')) {
    const eq = part.indexOf('=');
    if (eq > 0) map.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return map;
}

export function scramClient(
  password: string,
  // PostgreSQL takes the user name from the startup message and ignores this one.
  { user = '*', nonce = randomBytes(18).toString('base64') }: { user?: string; nonce?: string } = {},
): ScramClient {
  const firstBare = `n=${user},r=${nonce}`;
  let expectedSignature: Buffer | undefined;
  return {
    first: `n,,${firstBare}`,
    final(serverFirst) {
      const a = attributes(serverFirst);
      const serverNonce = a.get('r');
      const salt = a.get('s');
      const iterations = Number(a.get('i'));
      if (serverNonce === undefined || !serverNonce.startsWith(nonce) || serverNonce.length === nonce.length)
        throw new Error('SCRAM: the server nonce does not extend the client nonce');
      if (salt === undefined || !Number.isInteger(iterations) || iterations < 1)
        throw new Error('SCRAM: the server-first-message lacks a salt or an iteration count');
      const salted = pbkdf2Sync(
        password.normalize('NFKC'),
        Buffer.from(salt, 'base64'),
        iterations,
        32,
        'sha256',
      );
      const clientKey = hmac(salted, 'Client Key');
      const storedKey = createHash('sha256').update(clientKey).digest();
      const withoutProof = `c=biws,r=${serverNonce}`;
      const authMessage = `${firstBare},${serverFirst},${withoutProof}`;
      const signature = hmac(storedKey, authMessage);
      const proof = Buffer.alloc(clientKey.length);
      for (let i = 0; i < proof.length; i++) proof[i] = clientKey[i]! ^ signature[i]!;
      expectedSignature = hmac(hmac(salted, 'Server Key'), authMessage);
      return `${withoutProof},p=${proof.toString('base64')}`;
    },
    verify(serverFinal) {
      const v = attributes(serverFinal.trim()).get('v');
      const given = v === undefined ? undefined : Buffer.from(v, 'base64');
      if (
        expectedSignature === undefined ||
        given === undefined ||
        given.length !== expectedSignature.length ||
        !timingSafeEqual(given, expectedSignature)
      )
        throw new Error(
          'SCRAM: the server signature does not match (not the server that holds this password)',
        );
    },
  };
}
