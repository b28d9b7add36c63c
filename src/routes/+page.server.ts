// Prerendered: a page option only, kept in the server module so that the browser gets no module for it
// (a universal +page.ts would ship an object and the bundler helper that builds it).
export const prerender = true;
