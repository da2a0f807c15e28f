// The inbox page's browser bundle: registers <mountkit-inbox> once.
import { MountkitInboxElement } from "./element.js";

if (!customElements.get("mountkit-inbox")) customElements.define("mountkit-inbox", MountkitInboxElement);

export { MountkitInboxElement };
