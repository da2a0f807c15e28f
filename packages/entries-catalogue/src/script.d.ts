// Types of the `./catalogue.js` subpath: the browser script defines its custom element when loaded and exports
// nothing (import it for its effect, or serve the file with a <script> tag).
export {};
