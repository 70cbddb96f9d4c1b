"""Synthetic services of any size for scaling measurements: every rpc has a plain route
and a /{tenant} variant; the mix has custom verbs, multi-segment (nested) templates,
field bodies and queries, so the route tree has the shapes real services have."""

from __future__ import annotations

HEADER = """syntax = "proto3";

package bench.synthetic.v1;

import "google/api/annotations.proto";

message Item {
  string tenant = 1;
  string id = 2;
  string name = 3;
  int32 page_size = 4;
  string page_token = 5;
  bool force = 6;
}
"""


def synthetic_proto(rpcs: int) -> str:
    """The text of a proto whose one service has ``rpcs`` rpcs."""
    lines = [HEADER, "service Synthetic {"]
    for i in range(rpcs):
        kind = i % 4
        if kind == 0:
            verb, template, body = "get", f"/v1/collection{i}/{{id}}", ""
        elif kind == 1:
            verb, template, body = (
                "post",
                f"/v1/collection{i}/{{id}}:action{i % 7}",
                'body: "*"',
            )
        elif kind == 2:
            verb, template, body = "get", f"/v1/{{name=projects/*/things{i}/*}}", ""
        else:
            verb, template, body = (
                "delete",
                f"/v1/collection{i}/{{id}}/children/{{name}}",
                "",
            )
        lines.append(f"  rpc Call{i}(Item) returns (Item) {{")
        lines.append("    option (google.api.http) = {")
        lines.append(f'      {verb}: "{template}"')
        if body:
            lines.append(f"      {body}")
        lines.append("      additional_bindings {")
        lines.append(f'        {verb}: "/{{tenant}}{template}"')
        if body:
            lines.append(f"        {body}")
        lines.append("      }")
        lines.append("    };")
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def sample_requests(rpcs: int) -> list[tuple[str, str]]:
    """(verb, raw path) pairs that hit rpcs spread over the whole service, plain and tenant."""
    requests: list[tuple[str, str]] = []
    for i in range(0, rpcs, max(1, rpcs // 20)):
        kind = i % 4
        if kind == 0:
            request = ("GET", f"/v1/collection{i}/abc")
        elif kind == 1:
            request = ("POST", f"/v1/collection{i}/abc:action{i % 7}")
        elif kind == 2:
            request = ("GET", f"/v1/projects/p1/things{i}/t1")
        else:
            request = ("DELETE", f"/v1/collection{i}/abc/children/c1")
        requests.append(request)
        requests.append((request[0], "/t1" + request[1]))
    return requests
