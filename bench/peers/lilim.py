#!/usr/bin/env python3
"""The planner bench's peers (BENCHMARKS.md "Planned routes"): solves one
Li & Lim pickup-and-delivery instance with VROOM (pyvroom) or OR-Tools
within a time budget and prints the routes found as JSON, as lists of the
instance's task numbers; the bench measures them itself.

    lilim.py vroom|ortools INSTANCE SECONDS

Both solvers get what our planner gets: travel and time as the Euclidean
distance times SCALE, rounded, and the objective vehicles first, then
distance.
"""

import json
import math
import sys
import time
from datetime import timedelta

SCALE = 100
# A vehicle costs more than any route's distance: fewer vehicles first.
VEHICLE_COST = 10**9


def read(path):
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    vehicles, capacity = int(rows[0][0]), int(rows[0][1])
    tasks = []
    for row in rows[1:]:
        number, x, y, demand, ready, due, service, pickup, delivery = row[:9]
        tasks.append(
            dict(
                x=float(x),
                y=float(y),
                demand=int(demand),
                ready=int(ready),
                due=int(due),
                service=int(service),
                pickup=int(pickup),
                delivery=int(delivery),
            )
        )
    return vehicles, capacity, tasks


def matrix(tasks):
    return [
        [round(math.hypot(a["x"] - b["x"], a["y"] - b["y"]) * SCALE) for b in tasks]
        for a in tasks
    ]


def pairs(tasks):
    """(pickup, delivery) task numbers: a pickup names its delivery."""
    return [(i, t["delivery"]) for i, t in enumerate(tasks) if i > 0 and t["pickup"] == 0]


def with_vroom(vehicles, capacity, tasks, seconds):
    import vroom

    problem = vroom.Input()
    problem.set_durations_matrix(profile="car", matrix_input=matrix(tasks))
    depot = tasks[0]
    for v in range(vehicles):
        problem.add_vehicle(
            vroom.Vehicle(
                id=v,
                start=0,
                end=0,
                capacity=[capacity],
                time_window=vroom.TimeWindow(depot["ready"] * SCALE, depot["due"] * SCALE),
                costs=vroom.VehicleCosts(fixed=VEHICLE_COST),
            )
        )

    def step(i):
        t = tasks[i]
        return vroom.ShipmentStep(
            id=i,
            location=i,
            default_service=t["service"] * SCALE,
            time_windows=[vroom.TimeWindow(t["ready"] * SCALE, t["due"] * SCALE)],
        )

    for p, d in pairs(tasks):
        problem.add_shipment(pickup=step(p), delivery=step(d), amount=vroom.Amount([tasks[p]["demand"]]))
    solution = problem.solve(exploration_level=5, nb_threads=2, timeout=timedelta(seconds=seconds))
    routes = {}
    for row in solution.routes.itertuples():
        if row.type in ("pickup", "delivery"):
            routes.setdefault(row.vehicle_id, []).append(int(row.id))
    return list(routes.values())


def with_ortools(vehicles, capacity, tasks, seconds):
    from ortools.constraint_solver import pywrapcp, routing_enums_pb2

    travel = matrix(tasks)
    manager = pywrapcp.RoutingIndexManager(len(tasks), vehicles, 0)
    routing = pywrapcp.RoutingModel(manager)

    def distance(i, j):
        return travel[manager.IndexToNode(i)][manager.IndexToNode(j)]

    def duration(i, j):
        a = manager.IndexToNode(i)
        return tasks[a]["service"] * SCALE + travel[a][manager.IndexToNode(j)]

    arcs = routing.RegisterTransitCallback(distance)
    routing.SetArcCostEvaluatorOfAllVehicles(arcs)
    routing.SetFixedCostOfAllVehicles(VEHICLE_COST)
    horizon = tasks[0]["due"] * SCALE
    routing.AddDimension(routing.RegisterTransitCallback(duration), horizon, horizon, False, "Time")
    clock = routing.GetDimensionOrDie("Time")
    for node, t in enumerate(tasks):
        index = manager.NodeToIndex(node) if node else None
        if index is not None:
            clock.CumulVar(index).SetRange(t["ready"] * SCALE, t["due"] * SCALE)
    for v in range(vehicles):
        clock.CumulVar(routing.Start(v)).SetRange(tasks[0]["ready"] * SCALE, horizon)
        clock.CumulVar(routing.End(v)).SetRange(tasks[0]["ready"] * SCALE, horizon)
    load = routing.RegisterUnaryTransitCallback(lambda i: tasks[manager.IndexToNode(i)]["demand"])
    routing.AddDimensionWithVehicleCapacity(load, 0, [capacity] * vehicles, True, "Load")
    solver = routing.solver()
    for p, d in pairs(tasks):
        pi, di = manager.NodeToIndex(p), manager.NodeToIndex(d)
        routing.AddPickupAndDelivery(pi, di)
        solver.Add(routing.VehicleVar(pi) == routing.VehicleVar(di))
        solver.Add(clock.CumulVar(pi) <= clock.CumulVar(di))
    params = pywrapcp.DefaultRoutingSearchParameters()
    params.first_solution_strategy = routing_enums_pb2.FirstSolutionStrategy.PARALLEL_CHEAPEST_INSERTION
    params.local_search_metaheuristic = routing_enums_pb2.LocalSearchMetaheuristic.GUIDED_LOCAL_SEARCH
    params.time_limit.FromMilliseconds(int(seconds * 1000))
    solution = routing.SolveWithParameters(params)
    routes = []
    if solution is None:
        return routes
    for v in range(vehicles):
        index, route = routing.Start(v), []
        index = solution.Value(routing.NextVar(index))
        while not routing.IsEnd(index):
            route.append(manager.IndexToNode(index))
            index = solution.Value(routing.NextVar(index))
        if route:
            routes.append(route)
    return routes


def main():
    solver, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    vehicles, capacity, tasks = read(path)
    started = time.monotonic()
    solve = {"vroom": with_vroom, "ortools": with_ortools}[solver]
    routes = solve(vehicles, capacity, tasks, seconds)
    print(json.dumps({"routes": routes, "seconds": time.monotonic() - started}))


if __name__ == "__main__":
    main()
