/** Package entry (`vigia`): the receiver kit and the public-API client; also `vigia/receiver` and `vigia/client`. */
export * from './receiver/index.js';
export * from './client/index.js';
