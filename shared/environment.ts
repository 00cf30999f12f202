import { loadConfig, type ServiceConfig } from './config';

/**
 * This function's configuration, read from its environment once per cold start and checked
 * then, so a misconfigured function fails at start with a message naming the variable
 * instead of failing requests later.
 */
export const config: ServiceConfig = loadConfig(process.env);
