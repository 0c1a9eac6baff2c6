// examples/nitro-v3: authchart in a Nitro 3 app (h3 v2), built by Nitro and run as its output server.
import { nitroExampleSuite } from './nitro-suite.js';

nitroExampleSuite('nitro-v3', 'Nitro 3 example (h3 v2)');
