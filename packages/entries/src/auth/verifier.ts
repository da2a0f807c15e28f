// What authentication is to the service: a bearer token in, the subject out. Hosts may plug in their own verifier.

export interface Principal {
  /** The token's `sub`: becomes the entry's `ownerId`. */
  sub: string;
  claims: Record<string, unknown>;
}

export interface TokenVerifier {
  /** Resolves the principal, or rejects with an AuthError saying why the token is refused. */
  verify(token: string): Promise<Principal>;
}

/** A refused token. `message` goes to the client: it names the reason, never key material. */
export class AuthError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AuthError";
  }
}
