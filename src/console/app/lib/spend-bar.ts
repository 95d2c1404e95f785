// A budget's spend against its limit as a labelled meter (the Overview and Budgets pages both show it);
// over 80 % it turns amber and at the limit red, through the meter's own optimum ranges.
import { h, type VNode } from "preact";
import { dollars } from "./ui";

export function spendBar(label: string, spentMicro: number, limitMicro: number): VNode<any> {
  const pct = limitMicro > 0 ? Math.min(100, Math.round((spentMicro / limitMicro) * 1000) / 10) : 0;
  return h("div", { class: "spend" }, [
    h("meter", {
      min: 0,
      max: Math.max(limitMicro, 1),
      low: limitMicro * 0.8,
      high: limitMicro * 0.999,
      optimum: 0,
      value: Math.min(spentMicro, Math.max(limitMicro, 1)),
      "aria-label": `${label}: ${dollars(spentMicro)} of ${dollars(limitMicro)}`,
      "data-spend": label,
    }),
    h("span", { class: "spend-text" }, `${dollars(spentMicro)} of ${dollars(limitMicro)} (${pct}%)`),
  ]);
}
