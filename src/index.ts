/**
 * The gdflow package: the SDK (Client, its errors and the API's types) and the request-signing
 * module the server verifies with. The server itself is started with `gdflow serve`.
 */
export * from './client/index.js';
export * as signing from './signing/index.js';
export { authorizationHeader, contentMd5, signRequest, signString, stringToSign, AUTH_SCHEME } from './signing/index.js';
