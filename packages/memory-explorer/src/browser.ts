// The explorer's browser bundle: registers <mountkit-memory-explorer> once, whatever else the page loads.
import { MemoryExplorerElement } from "./element.js";

if (!customElements.get("mountkit-memory-explorer")) customElements.define("mountkit-memory-explorer", MemoryExplorerElement);

export { MemoryExplorerElement };
