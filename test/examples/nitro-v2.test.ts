// examples/nitro-v2: authchart in a Nitro 2 app (h3 v1, what Nuxt 3 and 4 ship), built by Nitro and run as its
// output server.
import { nitroExampleSuite } from './nitro-suite.js';

nitroExampleSuite('nitro-v2', 'Nitro 2 example (h3 v1)');
