import path from 'node:path';

// next is installed one level up (bench/peers/node_modules): that folder is the project's root, not the
// portal's checkout above it, whose lockfile Next would otherwise pick.
const root = path.resolve(import.meta.dirname, '..');

/** @type {import('next').NextConfig} */
const nextConfig = { outputFileTracingRoot: root, turbopack: { root } };
export default nextConfig;
