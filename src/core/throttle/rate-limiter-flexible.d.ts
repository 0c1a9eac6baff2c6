// The files of rate-limiter-flexible that authchart loads, one by one, so that a bundle holds only the stores it
// uses (the package's root requires every store it supports); the memory one only for the test that checks our
// own memory counter against it. Their types are the root's.
declare module 'rate-limiter-flexible/lib/RateLimiterMemory.js' {
  import { RateLimiterMemory } from 'rate-limiter-flexible';
  export default RateLimiterMemory;
}
declare module 'rate-limiter-flexible/lib/RateLimiterRedis.js' {
  import { RateLimiterRedis } from 'rate-limiter-flexible';
  export default RateLimiterRedis;
}
declare module 'rate-limiter-flexible/lib/RateLimiterPostgres.js' {
  import { RateLimiterPostgres } from 'rate-limiter-flexible';
  export default RateLimiterPostgres;
}
