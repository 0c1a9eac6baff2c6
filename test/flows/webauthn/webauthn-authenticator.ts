// A software WebAuthn authenticator for tests that run without a browser: an ES256 key pair that answers
// creation and request options with the same JSON a browser's `credential.toJSON()` gives, so
// @simplewebauthn/server verifies them for real. Knobs let a test break exactly one thing in a response.
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { isoCBOR } from '@simplewebauthn/server/helpers';
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server';
import type { AdapterAuthenticator } from '../../../src/core/types.js';

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

/** What a test may change in one response. */
export interface ResponseOverrides {
  /** Sign another challenge than the options'. */
  challenge?: string;
  /** Claim another origin in clientDataJSON. */
  origin?: string;
  /** Leave the user-verified flag off. */
  unverified?: boolean;
  /** Flip a byte of the signature (authentication). */
  badSignature?: boolean;
  /** Report this signature counter instead of the next one. */
  counter?: number;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

function uint32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

export class SoftAuthenticator {
  readonly credentialId = randomBytes(32);
  readonly userHandle = randomBytes(16);
  counter = 0;
  /** The AAGUID the authenticator reports at registration (16 bytes; all zeros by default, as with a `none` attestation). */
  aaguid: Buffer = Buffer.alloc(16);
  readonly #privateKey: KeyObject;
  readonly #coseKey: Uint8Array;

  constructor(readonly origin: string, readonly rpId = new URL(origin).hostname) {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    this.#privateKey = privateKey;
    const jwk = publicKey.export({ format: 'jwk' });
    const cose = new Map<number, number | Uint8Array>([
      [1, 2], // kty: EC2
      [3, -7], // alg: ES256
      [-1, 1], // crv: P-256
      [-2, Buffer.from(jwk.x!, 'base64url')],
      [-3, Buffer.from(jwk.y!, 'base64url')],
    ]);
    this.#coseKey = isoCBOR.encode(cose);
  }

  /** The credential id as the browser's JSON carries it (base64url). */
  get id(): string {
    return b64url(this.credentialId);
  }

  #clientData(type: string, challenge: string, o: ResponseOverrides): Buffer {
    return Buffer.from(JSON.stringify({ type, challenge: o.challenge ?? challenge, origin: o.origin ?? this.origin, crossOrigin: false }));
  }

  #flags(o: ResponseOverrides, extra = 0): number {
    return FLAG_USER_PRESENT | (o.unverified ? 0 : FLAG_USER_VERIFIED) | extra;
  }

  /** Answers `navigator.credentials.create()` options with a `none` attestation. */
  register(options: PublicKeyCredentialCreationOptionsJSON, o: ResponseOverrides = {}): RegistrationResponseJSON {
    const clientDataJSON = this.#clientData('webauthn.create', options.challenge, o);
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(this.credentialId.length);
    const authData = Buffer.concat([
      sha256(this.rpId),
      Buffer.from([this.#flags(o, FLAG_ATTESTED_DATA)]),
      uint32(this.counter),
      this.aaguid,
      idLength,
      this.credentialId,
      this.#coseKey,
    ]);
    const attestationObject = isoCBOR.encode(new Map<string, unknown>([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]) as never);
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: { clientDataJSON: b64url(clientDataJSON), attestationObject: b64url(attestationObject), transports: ['internal'] },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** Answers `navigator.credentials.get()` options, counting up the signature counter. */
  authenticate(options: PublicKeyCredentialRequestOptionsJSON, o: ResponseOverrides = {}): AuthenticationResponseJSON {
    this.counter = o.counter ?? this.counter + 1;
    const clientDataJSON = this.#clientData('webauthn.get', options.challenge, o);
    const authData = Buffer.concat([sha256(this.rpId), Buffer.from([this.#flags(o)]), uint32(this.counter)]);
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.#privateKey);
    if (o.badSignature) signature[signature.length - 1] ^= 0xff;
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: b64url(this.userHandle),
      },
      clientExtensionResults: {},
      authenticatorAttachment: 'platform',
    };
  }

  /** This credential as an adapter stores it, for tests that seed the database directly. */
  row(userId: string): AdapterAuthenticator {
    const credentialID = this.credentialId.toString('base64');
    return {
      userId,
      providerAccountId: credentialID,
      credentialID,
      credentialPublicKey: Buffer.from(this.#coseKey).toString('base64'),
      counter: this.counter,
      credentialDeviceType: 'singleDevice',
      credentialBackedUp: false,
      transports: 'internal',
    };
  }
}
