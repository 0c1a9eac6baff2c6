// pg's optional native binding is never used here (pg's JavaScript client is); bundlers that must resolve every
// import (Nitro's Cloudflare preset) get this empty module in its place.
export default undefined;
