import type { Branding } from './branding';

/** The community's branding as the build embedded it (vite.config.ts; docs/configuration.md "Branding"). */
export const community: Branding = __BRANDING__;
