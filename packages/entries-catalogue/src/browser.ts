// The catalogue's browser bundle: registers <mountkit-catalogue> once, whatever else the page loads.
import { MountkitCatalogueElement } from "./element.js";

if (!customElements.get("mountkit-catalogue")) customElements.define("mountkit-catalogue", MountkitCatalogueElement);

export { MountkitCatalogueElement };
