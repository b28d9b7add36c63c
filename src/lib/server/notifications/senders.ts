import type { Config } from '../platform/config';

/** The secrets whose links are still honoured: the current session password and the previous ones. */
export const linkSecrets = (config: Config) => [config.sessionPassword, ...config.sessionPasswordsPrevious];
