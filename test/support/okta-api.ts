/**
 * The Okta emulation (test/support/okta/): Okta's management API — users, groups, members, the
 * System Log — with its rate limits, and Event Hook delivery of the changes made through its
 * control API.
 */
export * from './okta/okta-server.js';
