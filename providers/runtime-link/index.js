// Resolved through the real path of this file (npm installs the package as a link), so it
// reaches the project's compiled runtime whatever node_modules path led here.
"use strict";
module.exports = require("../../dist/providers/runtime/index.js");
