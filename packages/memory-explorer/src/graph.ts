// The fact graph, drawn by cytoscape (canvas, a well-kept graph library): entities are nodes, every edge
// of the history is drawn, those valid and known at the sliders' point solid, the rest dashed and faded.
import cytoscape from "cytoscape";
import type { Edge, Entity } from "./client.js";

export type EdgeState = "valid" | "ended";

export interface GraphEdgeView {
  id: string;
  fact: string;
  state: EdgeState;
}

const STYLE = [
  {
    selector: "node",
    style: {
      label: "data(label)",
      "background-color": "#2f5bea",
      color: "#1c2230",
      "font-size": 12,
      "text-valign": "bottom",
      "text-margin-y": 4,
      width: 18,
      height: 18,
    },
  },
  { selector: "node.selected", style: { "background-color": "#b3261e", width: 24, height: 24 } },
  {
    selector: "edge",
    style: {
      label: "data(label)",
      "curve-style": "bezier",
      "target-arrow-shape": "triangle",
      "font-size": 10,
      color: "#1c2230",
      "text-background-color": "#ffffff",
      "text-background-opacity": 0.85,
      "text-background-padding": "2px",
      "text-rotation": "autorotate",
      width: 2,
    },
  },
  { selector: "edge.valid", style: { "line-color": "#1d6b36", "target-arrow-color": "#1d6b36", "line-style": "solid" } },
  {
    selector: "edge.ended",
    style: { "line-color": "#8a909c", "target-arrow-color": "#8a909c", "line-style": "dashed", opacity: 0.55 },
  },
] as cytoscape.StylesheetJson;

export class FactGraph {
  private cy: cytoscape.Core;
  private shape = "";

  constructor(container: HTMLElement) {
    this.cy = cytoscape({ container, style: STYLE, wheelSensitivity: 0.3, minZoom: 0.2, maxZoom: 3 });
  }

  /** Draws the history; lays the graph out again only when its shape (nodes, edges) changed. */
  setHistory(entities: ReadonlyMap<string, Entity>, edges: readonly Edge[]): void {
    const shape = edges
      .map((e) => e.id)
      .sort()
      .join();
    if (shape === this.shape) return;
    this.shape = shape;
    const nodeIds = new Set(edges.flatMap((e) => [e.source, e.target]));
    this.cy.batch(() => {
      this.cy.elements().remove();
      this.cy.add([...nodeIds].map((id) => ({ group: "nodes" as const, data: { id, label: entities.get(id)?.name ?? id } })));
      this.cy.add(
        edges.map((e) => ({
          group: "edges" as const,
          data: { id: e.id, source: e.source, target: e.target, label: e.relation, fact: e.fact },
          classes: "ended",
        })),
      );
    });
    this.cy
      .layout({ name: "cose", animate: false, randomize: false, nodeDimensionsIncludeLabels: true, padding: 24 } as cytoscape.LayoutOptions)
      .run();
    this.cy.fit(undefined, 24);
  }

  /** Marks the edges visible at the sliders' point valid, every other one ended. */
  setVisible(visible: ReadonlySet<string>): void {
    this.cy.batch(() => {
      this.cy.edges().forEach((e) => {
        const valid = visible.has(e.id());
        e.toggleClass("valid", valid);
        e.toggleClass("ended", !valid);
      });
    });
  }

  select(entityId: string | null): void {
    this.cy.nodes().removeClass("selected");
    if (entityId) this.cy.getElementById(entityId).addClass("selected");
  }

  onSelect(handler: (entityId: string) => void): void {
    this.cy.on("tap", "node", (ev) => handler(ev.target.id()));
  }

  /** What the graph draws now, read back from cytoscape: for a text summary and for tests. */
  edges(): GraphEdgeView[] {
    return this.cy.edges().map((e) => ({ id: e.id(), fact: String(e.data("fact")), state: e.hasClass("valid") ? "valid" : "ended" }));
  }

  resize(): void {
    this.cy.resize();
    this.cy.fit(undefined, 24);
  }

  destroy(): void {
    this.cy.destroy();
  }
}
