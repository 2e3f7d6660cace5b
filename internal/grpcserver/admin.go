package grpcserver

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
)

// Admin service names; admin.proto declares the same service.
const (
	AdminServiceName                   = "paddock.v1.Admin"
	AdminUpdateConfigurationFullMethod = "/paddock.v1.Admin/UpdateConfiguration"
	adminUpdateConfigurationMethodName = "UpdateConfiguration"
)

// adminServer is what AdminServiceDesc dispatches to.
type adminServer interface {
	updateConfiguration(context.Context, *si.UpdateConfigurationRequest) error
}

// AdminServiceDesc describes paddock.v1.Admin, written by hand in place of
// generated code: one unary method, UpdateConfiguration, from
// si.v1.UpdateConfigurationRequest to google.protobuf.Empty. It is
// registered by GRPCServer and Listen.
var AdminServiceDesc = grpc.ServiceDesc{
	ServiceName: AdminServiceName,
	HandlerType: (*adminServer)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: adminUpdateConfigurationMethodName,
		Handler:    adminUpdateConfigurationHandler,
	}},
	Metadata: "admin.proto",
}

func adminUpdateConfigurationHandler(srv any, ctx context.Context, dec func(any) error, interceptor grpc.UnaryServerInterceptor) (any, error) {
	in := new(si.UpdateConfigurationRequest)
	if err := dec(in); err != nil {
		return nil, err
	}
	handler := func(ctx context.Context, req any) (any, error) {
		if err := srv.(adminServer).updateConfiguration(ctx, req.(*si.UpdateConfigurationRequest)); err != nil {
			return nil, err
		}
		return &emptypb.Empty{}, nil
	}
	if interceptor == nil {
		return handler(ctx, in)
	}
	return interceptor(ctx, in, &grpc.UnaryServerInfo{Server: srv, FullMethod: AdminUpdateConfigurationFullMethod}, handler)
}
