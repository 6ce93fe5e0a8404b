export { formatDuration } from "./format-duration.js";
