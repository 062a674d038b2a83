/** Cost Management Query: the API version the vendor description and the simulator follow. */
export const COST_API_VERSION = '2025-03-01';
