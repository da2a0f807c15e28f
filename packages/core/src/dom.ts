// `@mountkit/core/dom` (browser only, off the core's root entry): what the pages build their views with, the DOM
// builder and a form's file picker.

export { FilePicker, type FilePickerOptions, type FileUpload, formatSize } from "./dom/file-picker.js";
export { append, type Child, type Children, h, type Props } from "./dom/h.js";
