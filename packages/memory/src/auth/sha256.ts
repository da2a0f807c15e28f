// SHA-256 of a UTF-8 string, synchronously and without node:crypto, so API-key hashes are the same on Node,
// Workers, Deno and Bun (Web Crypto's digest is async only, and key lookups are sync): @noble/hashes, an
// audited dependency-free implementation.
import { sha256 } from "@noble/hashes/sha2";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils";

/** Lower-case hex SHA-256 of `text` encoded as UTF-8: the same as `createHash("sha256").update(text, "utf8").digest("hex")`. */
export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));
