import { createHash, timingSafeEqual } from 'node:crypto';
/**
 * The bearer token a listener accepts (RFC 6750 §2.1). Tokens are compared as SHA-256 digests with
 * timingSafeEqual: equal lengths whatever the input, and no early exit that leaks a prefix.
 */
export class BearerToken {
    digest;
    constructor(token) {
        this.digest = sha256(token);
    }
    /** Switches the accepted token at run time (a rotated or revoked token). */
    set(token) {
        this.digest = sha256(token);
    }
    accepts(authorization) {
        const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? '');
        const presented = match?.[1];
        if (presented === undefined)
            return false;
        return timingSafeEqual(sha256(presented), this.digest);
    }
}
function sha256(text) {
    return createHash('sha256').update(text, 'utf8').digest();
}
//# sourceMappingURL=bearer-auth.js.map