import { BridgeError, isBridgeError } from '../../src/domain/errors.js';
import { ERROR_SCHEMA } from './scim-types.js';
export const SCIM_CONTENT_TYPE = 'application/scim+json';
export function scimErrorBody(status, detail, scimType) {
    return {
        schemas: [ERROR_SCHEMA],
        status: String(status),
        ...(scimType === undefined ? {} : { scimType }),
        detail,
    };
}
/** A 400 with an RFC 7644 §3.12 scimType. */
export function badRequest(scimType, detail) {
    return new BridgeError('invalid_input', detail, { status: 400, scimType, detail });
}
export function notFound(id) {
    return new BridgeError('not_found', `Resource ${id} not found`, { status: 404 });
}
export function uniquenessConflict(detail) {
    return new BridgeError('conflict', detail, { status: 409, scimType: 'uniqueness', detail });
}
const STATUS_BY_CODE = {
    invalid_input: 400,
    unauthorized: 401,
    not_found: 404,
    conflict: 409,
    payload_too_large: 413,
    unsupported_media_type: 415,
    rate_limited: 429,
};
export function errorResponse(error) {
    if (isBridgeError(error)) {
        const status = error.status ?? STATUS_BY_CODE[error.code] ?? 500;
        return { status, body: scimErrorBody(status, error.detail ?? error.message, error.scimType) };
    }
    return { status: 500, body: scimErrorBody(500, 'Internal error of the reference target') };
}
/**
 * Sends a SCIM body. A write whose response the fault plan chose to lose has been applied by now;
 * the client gets a 502 instead of the real answer.
 */
export function sendScim(res, status, body) {
    if (res.locals.loseResponse === true) {
        res.locals.fault = 'lost-response';
        sendBody(res, 502, scimErrorBody(502, 'Bad gateway (the response was lost)'));
        return;
    }
    sendBody(res, status, body);
}
function sendBody(res, status, body) {
    res.status(status);
    if (body === undefined) {
        res.end();
        return;
    }
    res.type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
}
export function sendScimError(res, error) {
    const { status, body } = errorResponse(error);
    sendScim(res, status, body);
}
/** An error the fault plan or the pipeline answers with, never lost. */
export function sendScimFault(res, status, detail, retryAfterSeconds) {
    if (retryAfterSeconds !== undefined)
        res.setHeader('Retry-After', String(retryAfterSeconds));
    sendBody(res, status, scimErrorBody(status, detail));
}
//# sourceMappingURL=scim-errors.js.map