export * from './canonical.js';
export * from './hmac.js';
