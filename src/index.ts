/** Package exports for users: the receiver kit and the public-API client. */
export {};
