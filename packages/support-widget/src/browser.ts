// The widget's browser bundle: registers <mountkit-support> once, whatever else the page loads.
import { MountkitSupportElement } from "./element.js";

if (!customElements.get("mountkit-support")) customElements.define("mountkit-support", MountkitSupportElement);

export { MountkitSupportElement };
