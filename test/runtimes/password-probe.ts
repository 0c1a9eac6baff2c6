// Run by test/runtimes/password-hash.test.ts under Bun and Deno: hashes and checks passwords with the default
// argon2id hasher (@node-rs/argon2, a Node-API module) and an imported bcrypt hash (bcryptjs), from the sources, and
// prints what it saw as one JSON line.
import { argon2id, hashNewPassword } from '../../src/providers/password/index.js';
import { verifyImportedHash } from '../../src/providers/password/imported.js';

const [password, bcryptHash] = [argument(2), argument(3)];
const hasher = argon2id();
const hash = await hashNewPassword(password);
console.log(JSON.stringify({
  hash,
  right: await hasher.verify(hash, password),
  wrong: await hasher.verify(hash, `${password}!`),
  rehash: hasher.needsRehash(hash),
  bcryptRight: await verifyImportedHash(bcryptHash, password),
  bcryptWrong: await verifyImportedHash(bcryptHash, `${password}!`),
}));

function argument(i: number): string {
  const deno = (globalThis as { Deno?: { args: string[] } }).Deno;
  return deno ? deno.args[i - 2]! : process.argv[i]!;
}
